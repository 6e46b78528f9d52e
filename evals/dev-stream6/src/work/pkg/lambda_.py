X = 'lambda_'
