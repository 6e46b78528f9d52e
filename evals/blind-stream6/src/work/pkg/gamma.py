X = 'gamma'
