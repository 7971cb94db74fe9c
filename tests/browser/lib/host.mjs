// The application page that embeds the bell, served from another origin
// than chopar (another port of 127.0.0.1), as a real host page would be.
// `files` maps a path to a JavaScript file the host serves too (its own
// service worker); every other path is the page.
import http from "node:http";

export function startHostPage(render, files = {}) {
  return new Promise((resolve) => {
    const server = http.createServer((request, response) => {
      const url = new URL(request.url, "http://127.0.0.1");
      if (url.pathname in files) {
        response.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" });
        response.end(files[url.pathname]);
        return;
      }
      if (url.pathname === "/favicon.ico") {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(render(url));
    });
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
