import type Ajv2020 from 'ajv/dist/2020.js'
import type addFormats from 'ajv-formats'

/** Ajv's 2020-12 class and ajv-formats' plugin, `require`d the first time. */
export declare function loadAjv(): { Ajv2020: typeof Ajv2020; addFormats: typeof addFormats }
