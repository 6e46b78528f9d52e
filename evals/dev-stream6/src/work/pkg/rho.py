X = 'rho'
