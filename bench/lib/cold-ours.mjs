// Cold-start child, our side: import the built server module and serve it on stdio.
const { default: server } = await import(process.argv[2])
await server.serveStdio()
