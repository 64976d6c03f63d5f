'use strict'
/**
 * Ajv's runtime helpers that standalone validators call only while
 * validating, each `require`d on first use: the package build inlines them
 * as modules evaluated only when called, which keeps them (fast-uri most of
 * all) out of a server's import time.
 */

/** `ajv/dist/runtime/equal`, `require`d now. */
exports.loadEqual = () => require('ajv/dist/runtime/equal.js')
/** `ajv/dist/runtime/ucs2length`, `require`d now. */
exports.loadUcs2length = () => require('ajv/dist/runtime/ucs2length.js')
/** `ajv/dist/runtime/uri` (fast-uri), `require`d now. */
exports.loadUri = () => require('ajv/dist/runtime/uri.js')
/** `ajv/dist/runtime/validation_error`, `require`d now. */
exports.loadValidationError = () => require('ajv/dist/runtime/validation_error.js')
