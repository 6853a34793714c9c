/* Starts Dash's scripts held in the template element #di-dash-scripts
   (dash_insight/web/first_paint.py inlines this file after it; its sha256 is in the pages'
   Content-Security-Policy): the external ones one after the other (each appended once the one
   before has run, so that each runs in a task of its own), then the inline ones in order
   (allowed by their hashes). */
(function () {
  var started = false;
  var frame = 0;
  function start() {
    var template = document.getElementById("di-dash-scripts");
    // No template: this page was not made by first_paint (an app that loads assets/ whole).
    if (started || !template) return;
    started = true;
    // A frame still asked for would draw the page once more before the first script runs.
    if (frame) window.cancelAnimationFrame(frame);
    var held = template.content.querySelectorAll("script");
    var external = [], inline = [];
    held.forEach(function (old) {
      var script = document.createElement("script");
      Array.prototype.forEach.call(old.attributes, function (a) {
        script.setAttribute(a.name, a.value);
      });
      if (old.getAttribute("src")) external.push(script);
      else {
        script.textContent = old.textContent;
        inline.push(script);
      }
    });
    function next() {
      var script = external.shift();
      if (!script) {
        inline.forEach(function (s) { document.body.appendChild(s); });
        return;
      }
      script.async = false;
      script.addEventListener("load", next);
      script.addEventListener("error", next);
      document.body.appendChild(script);
    }
    next();
  }
  // After the copy's first paint: now when it was drawn before the parser got here, else when
  // first-paint-styles.js says it was (or after the next paint without it); a hidden tab runs
  // no animation frame, hence the timer too.
  var copy = document.getElementById("di-first-paint");
  if (copy && copy.hasAttribute("data-painted")) {
    start();
    return;
  }
  if (copy) copy.addEventListener("di-painted", start);
  frame = window.requestAnimationFrame(function () {
    frame = 0;
    setTimeout(start, 0);
  });
  setTimeout(start, 300);
})();
