// The UI's one script: search as you type, keyboard navigation and the
// copy buttons. It reads nothing but this server's own pages (CSP
// connect-src 'self') and never builds HTML from strings: results arrive
// as HTML the server escaped, parsed into a detached document.
"use strict";
(function () {
  var q = document.getElementById("q");
  var results = document.getElementById("results");
  var timer = 0, seq = 0;

  if (q && results) {
    q.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var text = q.value, mine = ++seq;
        var url = "/search/results?q=" + encodeURIComponent(text);
        fetch(url, { credentials: "same-origin" }).then(function (r) {
          return r.ok ? r.text() : Promise.reject(r.status);
        }).then(function (html) {
          if (mine !== seq) return; // a later keystroke won
          var doc = new DOMParser().parseFromString(html, "text/html");
          results.replaceChildren.apply(results, Array.prototype.slice.call(doc.body.childNodes));
          history.replaceState(null, "", "/search?q=" + encodeURIComponent(text));
        }).catch(function () {});
      }, 150);
    });
    q.addEventListener("keydown", function (e) {
      if (e.key === "Enter") e.preventDefault(); // results are already there
    });
  }

  // Keyboard: / search, g o overview, g i impact, g s search, j and k
  // move through the page's links in graphs and lists.
  var pending = "";
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA")) {
      if (e.key === "Escape") t.blur();
      return;
    }
    if (e.key === "/") {
      e.preventDefault();
      if (q) q.focus();
      return;
    }
    if (pending === "g") {
      pending = "";
      var link = document.querySelector('nav a[data-key="' + e.key + '"]');
      if (link) link.click();
      return;
    }
    if (e.key === "g") { pending = "g"; return; }
    if (e.key === "j" || e.key === "k") {
      var links = Array.prototype.slice.call(document.querySelectorAll("main a.nav, main a.id"));
      if (!links.length) return;
      var i = links.indexOf(document.activeElement);
      i = e.key === "j" ? Math.min(i + 1, links.length - 1) : Math.max(i - 1, 0);
      links[i].focus();
      e.preventDefault();
    }
  });

  document.querySelectorAll("button.copy").forEach(function (b) {
    b.addEventListener("click", function () {
      var pre = b.parentNode.querySelector("pre");
      if (pre && navigator.clipboard) {
        navigator.clipboard.writeText(pre.textContent).then(function () { b.textContent = "copied"; }, function () {});
      }
    });
  });

  // A line asked for in the address (#L12) is marked.
  function mark() {
    document.querySelectorAll(".line.target").forEach(function (l) { l.classList.remove("target"); });
    if (location.hash.indexOf("#L") === 0) {
      var l = document.getElementById(location.hash.slice(1));
      if (l) l.classList.add("target");
    }
  }
  window.addEventListener("hashchange", mark);
  mark();
})();
