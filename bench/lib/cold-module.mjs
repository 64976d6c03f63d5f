// Cold-start child: import a module that starts serving on stdio by itself.
await import(process.argv[2])
