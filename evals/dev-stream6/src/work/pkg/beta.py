X = 'beta'
