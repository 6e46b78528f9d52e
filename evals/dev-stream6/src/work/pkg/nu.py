X = 'nu'
