/** `ajv/dist/runtime/equal`, `require`d now. */
export declare function loadEqual(): unknown
/** `ajv/dist/runtime/ucs2length`, `require`d now. */
export declare function loadUcs2length(): unknown
/** `ajv/dist/runtime/uri` (fast-uri), `require`d now. */
export declare function loadUri(): unknown
/** `ajv/dist/runtime/validation_error`, `require`d now. */
export declare function loadValidationError(): unknown
