import type { PageAssets } from "./manifest.ts";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The HTML shell of a bundled page: title, description, its hashed stylesheets and script, a root element. With
 * `module`, scripts are ES modules, except an explorer boot script (`/assets/explorer-boot-*`): a classic `async`
 * script, run as soon as it arrives — before the stylesheet and the app's modules — to send the page's first request.
 */
export function pageHtml(options: { title: string; description: string; assets: PageAssets; module: boolean; bodyClass?: string; noscript: string }): string {
  const css = options.assets.css.map((href) => `<link rel="stylesheet" href="${href}">`).join("");
  const boot = (src: string) => options.module && src.startsWith("/assets/explorer-boot-");
  const js = [...options.assets.js.filter(boot), ...options.assets.js.filter((src) => !boot(src))]
    .map((src) => `<script${!options.module ? " defer" : boot(src) ? " async" : ' type="module"'} src="${src}"></script>`)
    .join("");
  return `<!doctype html>
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
<body${options.bodyClass ? ` class="${options.bodyClass}"` : ""}><div id="root"><noscript>${escape(options.noscript)}</noscript></div></body>
</html>
`;
}
