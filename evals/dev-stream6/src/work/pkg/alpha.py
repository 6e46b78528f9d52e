X = 'alpha'
