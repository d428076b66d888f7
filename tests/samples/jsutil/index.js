import { slugify, Formatter } from "./strings.js";

export function makeLink(title) {
  const f = new Formatter("/posts/");
  return f.format(title) + "#" + slugify(title);
}
