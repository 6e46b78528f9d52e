X = 'eta'
