DEFAULTS={'host':'127.0.0.1','port':8080,'workers':4,'timeout':30}
LIMITS={'max_body':1048576,'max_conn':512,'max_idle':60}
RETRY={'tries':5,'backoff':0.5,'cap':8.0}
def merged(a,b):
    out=dict(a)
    out.update(b)
    return out
