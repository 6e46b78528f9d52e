X = 'sigma'
