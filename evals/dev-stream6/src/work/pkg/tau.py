X = 'tau'
