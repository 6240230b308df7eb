package web

import (
	"embed"
	"io/fs"
)

//go:embed assets
var assets embed.FS

// Assets holds the page's files: index.html (the page the server serves),
// static.html (the page of a static export, which runs the engine in
// WebAssembly), style.css and the JavaScript modules. The board drawing and
// the game flow (board.js, app.js) are shared by both pages; only the engine
// module differs (engine-http.js, engine-wasm.js).
var Assets fs.FS

func init() {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("web: embedded assets: " + err.Error())
	}
	Assets = sub
}
