// The event page follows a running event: it asks for the event's stamp every two seconds and,
// when a game has been stored since, fetches the page again and swaps in the new content.
// Polling (not server-sent events) keeps the server stateless and works behind any proxy.
(function () {
  "use strict";
  var body = document.body;
  var url = body.getAttribute("data-stamp-url");
  if (!url) return;
  var busy = false;

  function refresh() {
    if (busy) return;
    busy = true;
    fetch(url, {cache: "no-store"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        if (!s || s.stamp === body.getAttribute("data-stamp")) return null;
        return fetch(location.href, {cache: "no-store"}).then(function (r) { return r.text(); })
          .then(function (html) {
            var doc = new DOMParser().parseFromString(html, "text/html");
            var fresh = doc.getElementById("live");
            var old = document.getElementById("live");
            if (fresh && old) {
              old.replaceWith(document.importNode(fresh, true));
              body.setAttribute("data-stamp", fresh.getAttribute("data-stamp"));
            }
          });
      })
      .catch(function () { /* the server is gone for a moment: try again later */ })
      .then(function () { busy = false; });
  }
  setInterval(refresh, 2000);
})();
