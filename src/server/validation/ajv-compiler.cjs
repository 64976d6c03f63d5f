'use strict'
/**
 * Ajv's compiler, loaded on first use: `require` inside a function, which
 * the package build inlines as a module evaluated only when called, so a
 * server without hand-written tools never evaluates Ajv's compiler (a
 * good part of the runtime's import time). ESM has no synchronous lazy
 * import, and registering a hand-written tool is synchronous.
 */

let loaded

/** Ajv's 2020-12 class and ajv-formats' plugin, `require`d the first time. */
exports.loadAjv = function loadAjv() {
  if (!loaded) {
    const ajv = require('ajv/dist/2020.js')
    const formats = require('ajv-formats/dist/index.js')
    loaded = { Ajv2020: ajv.default || ajv, addFormats: formats.default || formats }
  }
  return loaded
}
