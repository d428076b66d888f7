// String helpers for slugs and titles.

/**
 * Turn a title into a URL slug.
 */
function slugify(title) {
  return title.toLowerCase().trim().replace(/\s+/g, "-");
}

function titleCase(text, separator) {
  return text
    .split(separator)
    .map((w) => capitalize(w))
    .join(" ");
}

function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

class Formatter {
  constructor(prefix) {
    this.prefix = prefix;
  }

  format(title) {
    return this.prefix + slugify(title);
  }
}

module.exports = { slugify, titleCase, Formatter };
