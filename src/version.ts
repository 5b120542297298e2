/** spread's version, kept equal to package.json's by scripts/build.mjs (checked by the unit tests). */
export const version = '0.1.0';
