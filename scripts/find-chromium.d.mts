/** A Chromium to launch: its executable, the arguments it needs, and where it came from. */
export interface FoundChromium {
  executablePath: string
  args: string[]
  source: 'env' | 'system' | 'npm'
}

/** `$CHROMIUM`, else a system Chromium or Chrome, else the one `@sparticuz/chromium` ships. */
export function findChromium(): Promise<FoundChromium>
