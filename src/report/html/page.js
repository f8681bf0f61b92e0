// Filters and folding for the results page. The page is whole without this script:
// it only hides rows and opens or closes cells.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var failuresOnly = document.getElementById("failures-only");
  var requirement = document.getElementById("requirement");
  var basis = document.getElementById("basis");
  var shown = document.getElementById("shown");
  form.hidden = false;
  function apply() {
    var count = 0;
    var groups = document.querySelectorAll("#matrix tbody");
    for (var g = 0; g < groups.length; g++) {
      var group = groups[g];
      var rows = group.querySelectorAll("tr.scenario");
      var wanted = requirement.value === "" || requirement.value === group.dataset.requirement;
      var visible = 0;
      for (var r = 0; r < rows.length; r++) {
        var row = rows[r];
        var keep = wanted &&
          (!failuresOnly.checked || row.dataset.failing === "true") &&
          (basis.value === "" || basis.value === row.dataset.basis);
        row.classList.toggle("hidden", !keep);
        if (keep) { visible++; }
      }
      group.classList.toggle("hidden", visible === 0);
      count += visible;
    }
    shown.textContent = count + " scenario(s) shown";
  }
  function openAll(open) {
    var cells = document.querySelectorAll("#matrix tr.scenario:not(.hidden) td details");
    for (var i = 0; i < cells.length; i++) {
      var td = cells[i].parentElement;
      if (!open || /s-(fail|error|flaky|stale|known|new)/.test(td.className)) { cells[i].open = open; }
    }
  }
  failuresOnly.addEventListener("change", apply);
  requirement.addEventListener("change", apply);
  basis.addEventListener("change", apply);
  document.getElementById("open-all").addEventListener("click", function () { openAll(true); });
  document.getElementById("fold-all").addEventListener("click", function () { openAll(false); });
  // `index.html#failures` opens on the failures, each cell open: a link to share.
  function fromHash() {
    if (window.location.hash === "#failures") {
      failuresOnly.checked = true;
      apply();
      openAll(true);
    } else {
      apply();
    }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
