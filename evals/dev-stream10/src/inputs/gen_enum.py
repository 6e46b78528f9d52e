# Generates a C enum and a name table for HTTP status codes.
codes = [(200, "OK"), (201, "CREATED"), (202, "ACCEPTED"), (204, "NO_CONTENT"),
         (301, "MOVED_PERMANENTLY"), (302, "FOUND"), (304, "NOT_MODIFIED"),
         (400, "BAD_REQUEST"), (401, "UNAUTHORIZED"), (403, "FORBIDDEN"),
         (404, "NOT_FOUND"), (409, "CONFLICT"), (429, "TOO_MANY_REQUESTS"),
         (500, "INTERNAL_SERVER_ERROR"), (502, "BAD_GATEWAY"), (503, "SERVICE_UNAVAILABLE")]
print("typedef enum {")
for c, n in codes:
    print(f"    HTTP_STATUS_{n} = {c},")
print("} http_status_t;\n")
print("static const char *http_status_name(http_status_t s) {")
print("    switch (s) {")
for c, n in codes:
    print(f"    case HTTP_STATUS_{n}: return \"{n}\";")
print("    default: return \"UNKNOWN\";")
print("    }")
print("}")
