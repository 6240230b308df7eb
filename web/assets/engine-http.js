// engine-http.js is the engine of the served page: the play web server's API.

async function call(method, url, body) {
  const res = await fetch(url, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  let data;
  try {
    data = await res.json();
  } catch {
    throw new Error(`${url}: HTTP ${res.status} without a JSON reply`);
  }
  if (!res.ok) throw new Error(data.error || `${url}: HTTP ${res.status}`);
  return data;
}

export const httpEngine = {
  games: () => call("GET", "api/games"),
  players: (game) => call("GET", "api/players?game=" + encodeURIComponent(game)),
  state: (req) => call("POST", "api/state", req),
  player: (req) => call("POST", "api/player", req),
  move: (req) => call("POST", "api/move", req),
  record: (req) => call("POST", "api/record", req),
};
