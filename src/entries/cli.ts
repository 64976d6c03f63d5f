#!/usr/bin/env node
/**
 * The `proto-mcp` command: `proto-mcp serve vibe.proto --grpc 127.0.0.1:50051`.
 */
import { main } from '../cli/main.ts'

process.exitCode = await main(process.argv.slice(2))
