package web

import (
	"embed"
	"io/fs"
)

//go:embed assets
var assets embed.FS

// Assets holds the page's files: index.html, style.css and the JavaScript
// modules. The board drawing and the game flow (board.js, app.js) are shared
// by the served page and the static export; only the engine differs:
// engine-http.js (play web's API, loaded by main-http.js) or engine-wasm.js
// (the WebAssembly engine in a Web Worker, engine-worker.js, loaded by
// main-wasm.js, which the export's index.html loads instead).
var Assets fs.FS

func init() {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("web: embedded assets: " + err.Error())
	}
	Assets = sub
}
