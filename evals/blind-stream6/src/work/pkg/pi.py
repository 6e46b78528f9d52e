X = 'pi'
