(program (lamb x k (ref x)))
