/* Gives the first paint's copy (div#di-first-paint, dash_insight/web/first_paint.py inlines this
   file after it; its sha256 is in the pages' Content-Security-Policy) the page's stylesheets
   (loaded: they block this script) as constructed sheets, so the copy is styled in the first
   paint. (<link> elements in the shadow root load asynchronously: the copy's text was painted
   up to 250 ms after its frame.) */
(function () {
  var copy = document.getElementById("di-first-paint");
  if (!copy || !copy.shadowRoot) return;
  try {
    copy.shadowRoot.adoptedStyleSheets = Array.prototype.map.call(document.styleSheets,
      function (sheet) {
        var adopted = new CSSStyleSheet();
        adopted.replaceSync(Array.prototype.map.call(sheet.cssRules, function (rule) {
          return rule.cssText;
        }).join("\n"));
        return adopted;
      });
  } catch (error) { console.warn("dash-insight: first paint without styles", error); }
})();
