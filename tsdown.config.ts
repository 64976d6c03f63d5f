import { fileURLToPath } from 'node:url'
import { defineConfig } from 'tsdown'

const WEB_TRANSPORTS = fileURLToPath(new URL('./src/server/web-transports.ts', import.meta.url))

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      vite: 'src/vite.ts',
      rollup: 'src/rollup.ts',
      rolldown: 'src/rolldown.ts',
      esbuild: 'src/esbuild.ts',
      webpack: 'src/webpack.ts',
      rspack: 'src/rspack.ts',
      runtime: 'src/runtime.ts',
      grpc: 'src/grpc.ts',
      cli: 'src/cli.ts',
    },
    format: 'esm',
    platform: 'node',
    target: 'node20',
    dts: true,
    clean: true,
    sourcemap: false,
  },
  {
    // The runtime for Workers and browsers (the `workerd`, `worker` and
    // `browser` conditions of `./runtime`): the same API, no Node transports.
    entry: { runtime: 'src/runtime.ts' },
    fixedExtension: true,
    outDir: 'dist/web',
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    dts: false,
    clean: true,
    sourcemap: false,
    plugins: [{
      name: 'web-transports',
      resolveId(source: string) {
        return source === './node-transports.ts' ? WEB_TRANSPORTS : null
      },
    }],
  },
])
