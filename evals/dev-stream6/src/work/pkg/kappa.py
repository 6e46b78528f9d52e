X = 'kappa'
