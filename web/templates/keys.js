// The keyboard shortcuts of the review queue and of a pair opened from it
// (served as /keys.js: the content security policy allows scripts from this
// site only, none inline). Links carry their key in data-key.
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.queue-row"));
  var at = -1;
  function select(i) {
    if (!rows.length) return;
    at = Math.max(0, Math.min(rows.length - 1, i));
    rows.forEach(function (r, k) { r.classList.toggle("selected", k === at); });
    rows[at].scrollIntoView({ block: "nearest" });
  }
  function follow(key) {
    var a = document.querySelector('[data-key="' + key + '"]');
    if (!a) return false;
    a.click();
    return true;
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(t.tagName))) return;
    var help = document.getElementById("keys-help");
    switch (e.key) {
      case "j": select(at + 1); break;
      case "k": select(at - 1); break;
      case "o":
      case "Enter":
        if (at < 0) return;
        rows[at].querySelector("a.queue-open").click();
        break;
      case "?": if (help) help.hidden = !help.hidden; break;
      case "n":
      case "p":
      case "u":
        if (!follow(e.key)) return;
        break;
      default: return;
    }
    e.preventDefault();
  });
})();
