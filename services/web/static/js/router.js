// The hash routes' two helpers (app.js maps paths to pages).
export function currentPath() {
  return decodeURIComponent(window.location.hash.replace(/^#/, "").split("?")[0]) || "/";
}

export function navigate(path) {
  window.location.hash = `#${path}`;
}
