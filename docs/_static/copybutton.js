// A copy button on every code block. In a Python session (lines starting with ">>> "
// or "... ") only the input lines are copied, without their prompts, so that the
// copied text runs as it is pasted; the printed output is left out. Other blocks
// are copied whole.
"use strict";

function stripPrompts(text) {
  const lines = text.replace(/\n$/, "").split("\n");
  const prompt = /^(>>> |\.\.\. |>>>$|\.\.\.$)/;
  if (!lines.some((line) => line.startsWith(">>>"))) {
    return lines.join("\n");
  }
  return lines
    .filter((line) => prompt.test(line))
    .map((line) => line.replace(/^(>>>|\.\.\.) ?/, ""))
    .join("\n");
}

function addCopyButton(block) {
  const button = document.createElement("button");
  button.className = "db-copybtn";
  button.type = "button";
  button.title = "Copy";
  button.setAttribute("aria-label", "Copy the code");
  button.textContent = "Copy";
  button.addEventListener("click", () => {
    const pre = block.querySelector("pre");
    const text = stripPrompts(pre.innerText);
    navigator.clipboard.writeText(text).then(
      () => { button.textContent = "Copied"; },
      () => { button.textContent = "Failed"; },
    );
    setTimeout(() => { button.textContent = "Copy"; }, 1500);
  });
  block.appendChild(button);
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("div.highlight").forEach(addCopyButton);
  });
}

if (typeof module !== "undefined") {
  module.exports = { stripPrompts };
}
