# Writes a deterministic access log in combined log format to access.log.
paths = ["/", "/api/v1/items", "/api/v1/items", "/static/app.js", "/static/app.css", "/api/v1/items/42",
         "/login", "/api/v1/items", "/static/app.js", "/favicon.ico", "/api/v1/health", "/api/v1/health",
         "/api/v1/health", "/static/logo.svg", "/api/v1/items/7"]
with open("access.log", "w") as f:
    for i in range(300):
        p = paths[(i * 7 + i // 5) % len(paths)]
        ip = f"10.0.{i % 4}.{(i * 13) % 250 + 1}"
        status = 200 if p != "/login" else 302
        f.write(f'{ip} - - [30/Nov/2026:10:{i // 60:02d}:{i % 60:02d} +0000] "GET {p} HTTP/1.1" {status} {(i * 97) % 5000 + 120} "-" "curl/8.5.0"\n')
