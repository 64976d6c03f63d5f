'use strict'
/**
 * protobufjs (its light build and `ext/protojson`), loaded on first use:
 * `require` inside a function, which the package build inlines as modules
 * evaluated only when called, so a server whose calls the generated codecs
 * answer never evaluates protobufjs. ESM has no synchronous lazy import,
 * and the reflection fallback is reached from synchronous code.
 */

let loaded

/** `{ protobuf, protojson }`, `require`d the first time. */
exports.loadProtobuf = function loadProtobuf() {
  if (!loaded) {
    const light = require('protobufjs/light.js')
    const protojson = require('protobufjs/ext/protojson.js')
    loaded = { protobuf: light.default || light, protojson: protojson.default || protojson }
  }
  return loaded
}
