import { start } from "./app.js";
import { httpEngine } from "./engine-http.js";

start(httpEngine);
