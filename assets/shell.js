/* dash-insight page frame (dash_insight/web/shell.py): theme and the highlighted menu entry,
   called with dash.ClientsideFunction("shell", name). */
(function () {
  /* The interface's words for the browser scripts, in the page's language: the server renders
     them into <div id="di-client-texts" data-texts> (dash_insight/web/i18n.py client_texts).
     dashInsightText("Step: {step}", {step: 3}) -> "步骤：3" on a Chinese page; an English page,
     or a word the server did not send, gives the English. */
  let texts = null;
  /* A cookie of the whole app, kept a year: the server reads it before building a page. */
  function setCookie(name, value) {
    document.cookie = name + "=" + value + "; path=/; max-age=" + 365 * 24 * 3600 +
      "; SameSite=Lax";
  }
  /* The URL of `route` of our REST API (/v1/dash-insight/, dash_insight/web/plugin.py) below
     the app's prefix (create_app(server=...) may mount the app anywhere). */
  window.dashInsightApi = function (route) {
    let prefix = "/";
    try {
      prefix = JSON.parse(document.getElementById("_dash-config").textContent)
        .requests_pathname_prefix || "/";
    } catch { /* the default prefix */ }
    return `${prefix}v1/dash-insight/${route}`;
  };

  window.dashInsightText = function (english, values) {
    if (texts === null || !Object.keys(texts).length) {
      const element = document.getElementById("di-client-texts");
      try {
        texts = element ? JSON.parse(element.dataset.texts || "{}") : {};
      } catch {
        texts = {};
      }
    }
    let text = Object.prototype.hasOwnProperty.call(texts, english) ? texts[english] : english;
    Object.entries(values || {}).forEach(([name, value]) => {
      text = text.split("{" + name + "}").join(String(value));
    });
    return text;
  };

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    shell: {
      /* The theme button: the other theme on <html data-theme> and in the di_theme cookie,
         from which the server builds every page (web/theme.py: <html data-theme> and the
         "theme" store, so nothing is called at load). Returns the theme for the "theme" store,
         whose listeners redraw what follows the theme. */
      applyTheme() {
        const root = document.documentElement;
        const next = (root.dataset.theme || "light") === "dark" ? "light" : "dark";
        root.dataset.theme = next;
        setCookie("di_theme", next);
        return next;
      },

      /* The auto-refresh timer: [disabled, interval in ms] from the "Auto refresh" box and the
         seconds, clamped to the box's own min and max (web/shell.py: MindInsight's 3..300 s);
         an empty or unreadable box keeps the current interval. Remembered in the di_refresh
         cookie ("on:10"), from which the server builds the box and the timer of every page
         (web/refresh_setting.py). */
      autoRefresh(enabled, seconds, low, high, current) {
        const value = Math.trunc(Number(seconds));
        const interval = Number.isFinite(value) && seconds !== null && seconds !== ""
          ? Math.max(low, Math.min(high, value)) * 1000 : current;
        const on = Boolean(enabled && enabled.length);
        setCookie("di_refresh", (on ? "on" : "off") + ":" + Math.round(interval / 1000));
        return [!on, interval];
      },

      /* Mark the menu link of the page shown (class "active"): the home link only on the home
         page, the others on their path and below it. `navId` is the menu's element id. */
      markActiveNav(pathname, navId) {
        document.querySelectorAll("#" + navId + " a").forEach(link => {
          const target = new URL(link.href, window.location.href).pathname;
          const home = target.endsWith("/") && pathname === target;
          const active = home || (!target.endsWith("/") && pathname.startsWith(target));
          link.classList.toggle("active", active);
        });
        return window.dash_clientside.no_update;
      },

      /* The address the window shows, when the location holds another one: the server renders
         a full load's page from the Referer of the layout request (web/shell.py shell_layout),
         and browsers cut a Referer longer than 4,096 characters to the bare origin, the home
         page's address. Called when the location mounts and sets `href` (the layout leaves it
         out where the Referer may be a cut one: web/shell.py location_props) and on every move
         of the window's address; returns [pathname, search], whose change routes to the page
         of the address, or no_update when they agree. */
      followWindowAddress(href, pathname, search) {
        const here = window.location;
        if (pathname === here.pathname && (search || "") === here.search) {
          return [window.dash_clientside.no_update, window.dash_clientside.no_update];
        }
        return [here.pathname, here.search];
      },

      /* The language switch (dash_insight/web/i18n.py): remember the clicked locale in the
         di_language cookie (read by the server before every request) and reload the same URL,
         which the server now renders in that language. */
      setLanguage() {
        const triggered = window.dash_clientside.callback_context.triggered;
        if (!triggered.length || !triggered[0].value) {
          return window.dash_clientside.no_update;
        }
        const id = JSON.parse(triggered[0].prop_id.split(".")[0]);
        setCookie("di_language", encodeURIComponent(id.locale));
        window.location.reload();
        return id.locale;
      },
    },
  });
})();
