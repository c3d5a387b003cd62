import type { PageAssets } from "./manifest.ts";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A JSON data block of the page (not a script that runs: CSP's script-src does not apply to it). */
export interface InlineData {
  id: string;
  /** data-* attributes (names without the prefix). */
  attrs: Record<string, string>;
  /** A JSON text. */
  json: string;
}

/**
 * `<script type="application/json">`: every `<` of the JSON is written `\u003c` (the same JSON value), so no `</script>`
 * or `<!--` inside a string can end the element early.
 */
export const dataBlock = (d: InlineData) =>
  `<script type="application/json" id="${escape(d.id)}"${Object.entries(d.attrs)
    .map(([k, v]) => ` data-${k}="${escape(v)}"`)
    .join("")}>${d.json.replace(/</g, "\\u003c")}</script>`;

type PageOptions = { title: string; description: string; assets: PageAssets; module: boolean; bodyClass?: string; noscript: string };

/**
 * The HTML shell of a bundled page: title, description, its hashed stylesheets and script, a root element, and at the
 * end of the body its `data` block if any. With `module`, scripts are ES modules, except an explorer boot script
 * (`/assets/explorer-boot-*`): a classic `async` script, run as soon as it arrives.
 */
export function pageHtml(options: PageOptions & { data?: InlineData }): string {
  const [head, tail] = pageHtmlParts(options);
  return `${head}${options.data ? dataBlock(options.data) : ""}${tail}`;
}

/**
 * The shell in two parts, before and after the place of the data block (the end of the body): the server sends the
 * first part (which names the stylesheets and scripts) at once and the data block once the answer is there.
 */
export function pageHtmlParts(options: PageOptions): [string, string] {
  const css = options.assets.css.map((href) => `<link rel="stylesheet" href="${href}">`).join("");
  const boot = (src: string) => options.module && src.startsWith("/assets/explorer-boot-");
  const js = [...options.assets.js.filter(boot), ...options.assets.js.filter((src) => !boot(src))]
    .map((src) => `<script${!options.module ? " defer" : boot(src) ? " async" : ' type="module"'} src="${src}"></script>`)
    .join("");
  return [
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escape(options.title)}</title>
<meta name="description" content="${escape(options.description)}">
<link rel="icon" href="data:,">
${css}${js}
</head>
<body${options.bodyClass ? ` class="${options.bodyClass}"` : ""}><div id="root"><noscript>${escape(options.noscript)}</noscript></div>`,
    `</body>
</html>
`,
  ];
}
