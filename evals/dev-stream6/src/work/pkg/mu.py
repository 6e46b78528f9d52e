X = 'mu'
