BEGIN { FS = "," }
NR == 1 { next }
{ name[NR] = $1; code[NR] = $2; msg[NR] = $3; n = NR }
END {
    print "/* Generated from errors.csv by gen_header.awk. Do not edit. */"
    print "#ifndef APP_ERRORS_H"
    print "#define APP_ERRORS_H"
    print ""
    print "typedef enum {"
    for (i = 2; i <= n; i++) printf "    APP_ERR_%s = %d,\n", name[i], code[i]
    print "} app_error_t;"
    print ""
    print "static inline const char *app_error_str(app_error_t e)"
    print "{"
    print "    switch (e) {"
    for (i = 2; i <= n; i++) printf "    case APP_ERR_%s:\n        return \"%s\";\n", name[i], msg[i]
    print "    default:"
    print "        return \"unknown error\";"
    print "    }"
    print "}"
    print ""
    print "#endif /* APP_ERRORS_H */"
}
