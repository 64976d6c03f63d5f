import { defineConfig } from 'tsdown'

export default defineConfig({
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
    gateway: 'src/gateway.ts',
    cli: 'src/cli.ts',
  },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  dts: true,
  clean: true,
  sourcemap: false,
})
