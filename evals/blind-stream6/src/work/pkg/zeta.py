X = 'zeta'
