import { createHash } from "node:crypto";

/**
 * The screen's only stylesheet and script, served by the app itself (no CDN; the Content
 * Security Policy allows nothing else). Kept as strings so the build ships them with the code.
 */
export const APP_CSS = `
:root {
  --bg: #f6f7f9; --panel: #fff; --ink: #1c2330; --muted: #5f6b7a; --line: #dde2e8;
  --brand: #0f6b5c; --brand-ink: #fff; --danger: #b42318; --warn-bg: #fff7e6; --warn: #8a5a00;
  --ok-bg: #e8f5ef; --ok: #0f6b42; --code: #f1f3f6;
}
* { box-sizing: border-box; }
html { font-size: 15px; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--bg); line-height: 1.45; }
a { color: var(--brand); }
header.top { background: #10202b; color: #fff; }
header.top .bar { max-width: 1320px; margin: 0 auto; padding: 10px 20px; display: flex;
  align-items: center; gap: 18px; flex-wrap: wrap; }
header.top .brand { font-weight: 700; letter-spacing: .2px; color: #fff; text-decoration: none; }
header.top nav { display: flex; gap: 4px; flex-wrap: wrap; }
header.top nav a { color: #c9d6df; text-decoration: none; padding: 6px 10px; border-radius: 6px; }
header.top nav a.active, header.top nav a:hover { background: #233847; color: #fff; }
header.top .who { margin-left: auto; display: flex; align-items: center; gap: 10px; font-size: .9rem; }
header.top select { background: #233847; color: #fff; border: 1px solid #395263; border-radius: 6px;
  padding: 4px 6px; }
header.top button.link { background: none; border: 1px solid #395263; color: #c9d6df; padding: 4px 10px; }
main { max-width: 1320px; margin: 0 auto; padding: 22px 20px 60px; }
h1 { font-size: 1.5rem; margin: 0 0 6px; }
h2 { font-size: 1.15rem; margin: 28px 0 10px; }
h3 { font-size: 1rem; margin: 20px 0 8px; }
.panel > h2:first-child, section.panel > h2:first-child { margin-top: 4px; }
td.nowrap, span.nowrap { white-space: nowrap; }
p.lead { color: var(--muted); margin: 0 0 18px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px;
  margin-bottom: 18px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 14px; }
.stat .label { color: var(--muted); font-size: .85rem; }
.stat .value { font-size: 1.6rem; font-weight: 650; font-variant-numeric: tabular-nums; }
table { width: 100%; border-collapse: collapse; background: var(--panel); }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top;
  font-size: .92rem; }
th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.table-wrap { border: 1px solid var(--line); border-radius: 10px; overflow-x: auto; margin-bottom: 18px; }
.table-wrap table tr:last-child td { border-bottom: none; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88rem; }
code { background: var(--code); padding: 1px 5px; border-radius: 4px; }
.chip { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: .78rem; background: var(--code);
  margin: 1px 2px 1px 0; white-space: nowrap; }
.chip.sensitive { background: #fde8e7; color: var(--danger); }
.chip.ok { background: var(--ok-bg); color: var(--ok); }
.chip.off { background: #eceff3; color: var(--muted); }
.chip.warn { background: var(--warn-bg); color: var(--warn); }
.chip.dropped { background: #eceff3; color: var(--muted); text-decoration: line-through; }
form.row { display: flex; gap: 8px; align-items: flex-end; flex-wrap: wrap; margin: 8px 0; }
form.row label { margin: 0; }
.muted { color: var(--muted); }
form.inline { display: inline; margin: 0; }
fieldset { border: none; padding: 0; margin: 10px 0 0; }
legend { font-weight: 600; padding: 0; margin-bottom: 4px; }
label { display: block; font-weight: 600; margin: 10px 0 4px; }
label.check { font-weight: 400; display: flex; gap: 8px; align-items: center; margin: 4px 0; }
input[type=text], input[type=email], input[type=password], input[type=search], select {
  font: inherit; padding: 7px 9px; border: 1px solid #c4ccd6; border-radius: 6px; width: 100%; max-width: 420px;
  background: #fff; }
button, .button { font: inherit; cursor: pointer; border-radius: 6px; border: 1px solid var(--brand);
  background: var(--brand); color: var(--brand-ink); padding: 6px 14px; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #fff; color: var(--brand); }
button.danger, .button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
button.small, .button.small { padding: 3px 10px; font-size: .85rem; }
.scopes { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 2px 16px; }
.danger-zone { border: 1px dashed var(--danger); border-radius: 8px; padding: 10px 12px; margin-top: 12px;
  background: #fffafa; }
.notice { border-radius: 8px; padding: 10px 14px; margin-bottom: 16px; }
.notice.ok { background: var(--ok-bg); color: var(--ok); }
.notice.error { background: #fde8e7; color: var(--danger); }
.notice.warn { background: var(--warn-bg); color: var(--warn); }
.secret { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.secret code { font-size: 1rem; padding: 8px 10px; word-break: break-all; border: 1px solid var(--line); }
.empty { padding: 26px; text-align: center; color: var(--muted); border: 1px dashed var(--line);
  border-radius: 10px; background: #fbfcfd; }
.pager { display: flex; gap: 10px; margin: 6px 0 18px; }
.login { max-width: 400px; margin: 70px auto; }
.login .panel { padding: 24px 26px; }
.chart svg { width: 100%; height: auto; display: block; }
.legend { display: flex; gap: 16px; font-size: .85rem; color: var(--muted); margin-top: 6px; flex-wrap: wrap; }
.legend .swatch { display: inline-block; width: 18px; height: 0; border-top: 3px solid; vertical-align: middle;
  margin-right: 6px; }
.legend .closing { border-color: #0f6b5c; }
.legend .conservative { border-color: #b45309; border-top-style: dashed; }
.legend .optimistic { border-color: #2563eb; border-top-style: dotted; }
.legend .band { border-top: 8px solid #cfe7e2; height: 0; }
.legend .inflow { border-top: 8px solid #6fbf9f; }
.legend .outflow { border-top: 8px solid #e59a8c; }
svg .grid-line { stroke: #e3e7ec; stroke-width: 1; }
svg .zero-line { stroke: #9aa5b1; stroke-width: 1.2; }
svg .threshold-line { stroke: var(--danger); stroke-width: 1.2; stroke-dasharray: 5 4; }
svg .axis { font-size: 11px; fill: #5f6b7a; }
svg .line { fill: none; }
svg .line.closing { stroke: #0f6b5c; stroke-width: 2.6; }
svg .line.conservative { stroke: #b45309; stroke-width: 2; stroke-dasharray: 6 4; }
svg .line.optimistic { stroke: #2563eb; stroke-width: 2; stroke-dasharray: 2 4; }
svg .band { fill: #cfe7e2; fill-opacity: .7; stroke: none; }
svg .point { fill: #0f6b5c; }
svg .bar.inflow { fill: #6fbf9f; }
svg .bar.outflow { fill: #e59a8c; }
.sparkline { width: 120px; height: 32px; display: block; margin: 4px 0; }
.sparkline .line.closing { stroke-width: 1.8; }
.chip.good { background: var(--ok-bg); color: var(--ok); }
.chip.bad { background: #fde8e7; color: var(--danger); }
.grid.two { grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); }
ol.top-list { margin: 0; padding-left: 1.4em; }
ol.top-list li { display: flex; justify-content: space-between; gap: 10px; padding: 3px 0; }
ul.drivers { margin: 6px 0 0; padding-left: 1.2em; font-size: .9rem; }
ul.insights { margin: 8px 0 0; padding-left: 1.2em; }
caption { text-align: left; padding: 8px 10px; font-weight: 600; }
.threshold { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-top: 8px; }
.threshold label { margin: 0; font-weight: 400; }
.threshold input { font: inherit; padding: 3px 6px; border: 1px solid #c4ccd6; border-radius: 6px; width: 8em; }
.scenario-picker { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
.scenario-picker label { margin: 0; font-weight: 400; }
.scenario-picker select { width: auto; }
details > summary { cursor: pointer; color: var(--brand); }
details.weeks { margin-top: 10px; }
.small { font-size: .85rem; }
.markdown p { margin: 0 0 6px; }
.refs { font-size: .85rem; }
svg.versus { width: 100%; height: auto; display: block; }
svg .line.base { stroke: #9aa5b1; stroke-width: 1.6; stroke-dasharray: 5 4; }
.fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 0 14px; }
.fields input[type=text] { max-width: 100%; }
details.edit { margin-top: 10px; }
meter { width: 100%; height: 14px; margin: 6px 0; }
.panel.ledger { padding: 10px 14px; }
.placeholder { border: 2px dashed #c4ccd6; border-radius: 10px; padding: 18px; color: var(--muted);
  background: repeating-linear-gradient(45deg, #fbfcfd, #fbfcfd 10px, #f4f6f8 10px, #f4f6f8 20px); }
.brief h3 { margin: 0 0 4px; font-size: 1rem; }
.brief section { margin-bottom: 12px; }
/* A 390 px phone: nothing may be wider than the screen; wide tables scroll inside their frame. */
img, svg { max-width: 100%; }
td, th { overflow-wrap: anywhere; }
@media (max-width: 600px) {
  html { font-size: 14px; }
  header.top .bar { padding: 8px 12px; gap: 8px; }
  header.top .who { margin-left: 0; flex-wrap: wrap; }
  main { padding: 14px 12px 40px; }
  .panel { padding: 12px; }
  .grid, .grid.two { grid-template-columns: minmax(0, 1fr); }
  .stat .value { font-size: 1.35rem; }
  th, td { padding: 6px 6px; }
  .scopes { grid-template-columns: minmax(0, 1fr); }
  input[type=text], input[type=email], input[type=password], input[type=search], select { max-width: 100%; }
}
footer { max-width: 1320px; margin: 0 auto; padding: 0 20px 30px; color: var(--muted); font-size: .8rem; }
`;

/**
 * Progressive enhancement only; every action works without it (confirmations are server pages).
 * - `[data-copy]` buttons copy the text of the element their value names (the new key).
 * - `select[data-autosubmit]` submits its form on change (the organisation switcher).
 */
export const APP_JS = `"use strict";
document.addEventListener("click", function (ev) {
  var target = ev.target;
  if (!(target instanceof HTMLElement)) return;
  var button = target.closest("[data-copy]");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy") || "");
  if (!source) return;
  var text = source.textContent || "";
  function done() { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 2000); }
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, function () { selectText(source); });
  } else {
    selectText(source);
    try { if (document.execCommand("copy")) done(); } catch (e) { /* the text stays selected */ }
  }
});
function selectText(el) {
  var range = document.createRange();
  range.selectNodeContents(el);
  var sel = window.getSelection();
  if (sel) { sel.removeAllRanges(); sel.addRange(range); }
}
document.addEventListener("change", function (ev) {
  var el = ev.target;
  if (el instanceof HTMLSelectElement && el.hasAttribute("data-autosubmit") && el.form) el.form.submit();
});
document.querySelectorAll("[data-js-only]").forEach(function (el) { el.removeAttribute("hidden"); });
document.querySelectorAll("[data-no-js]").forEach(function (el) { el.setAttribute("hidden", ""); });
`;

function version(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

/** Content-versioned URLs, so the assets can be cached and still change with a release. */
export const ASSET_URLS = {
  css: `/settings/assets/app.css?v=${version(APP_CSS)}`,
  js: `/settings/assets/app.js?v=${version(APP_JS)}`,
} as const;
