X = 'theta'
