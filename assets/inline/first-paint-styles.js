/* Gives the first paint's copy (div#di-first-paint; dash_insight/web/first_paint.py inlines
   this file, its sha256 in the CSP) the page's stylesheets (loaded: they block this script) as
   constructed sheets (<link>s in a shadow root load late), then shows it: laid out once,
   styled. After the frame that draws it, it is marked data-painted and sends "di-painted"
   (first-paint-loader.js starts Dash's scripts then). */
(function () {
  var copy = document.getElementById("di-first-paint");
  if (!copy) return;
  try {
    if (copy.shadowRoot) {
      copy.shadowRoot.adoptedStyleSheets = Array.prototype.map.call(document.styleSheets,
        function (sheet) {
          var adopted = new CSSStyleSheet();
          adopted.replaceSync(Array.prototype.map.call(sheet.cssRules, function (rule) {
            return rule.cssText;
          }).join("\n"));
          return adopted;
        });
    }
  } catch (error) {
    console.warn("dash-insight: first paint without styles", error);
  } finally {
    copy.hidden = false;
  }
  window.requestAnimationFrame(function () {
    setTimeout(function () {
      copy.setAttribute("data-painted", "");
      copy.dispatchEvent(new Event("di-painted"));
    }, 0);
  });
})();
