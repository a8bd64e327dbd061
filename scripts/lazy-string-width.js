// Stands in for `string-width` in the CLI bundle (scripts/build.mjs). yargs and its help layout
// (cliui, wrap-ansi) measure text with it only when they print help or an error, but each of the
// three copies they bring builds an Intl.Segmenter and Unicode-property regular expressions as it
// is imported, at every start of every command. Through `require`, esbuild bundles the real one
// to be evaluated at its first call instead.
let stringWidth;

export default function lazyStringWidth(text, options) {
  stringWidth ??= require('string-width').default;
  return stringWidth(text, options);
}
