// The learning page needs no script to work: forgetting asks on a page of
// its own. This only focuses the edit form when it is opened.
(function () {
  "use strict";
  const edit = document.getElementById("edit");
  if (edit) edit.addEventListener("toggle", () => { if (edit.open) edit.querySelector("input[name=title]").focus(); });
})();
