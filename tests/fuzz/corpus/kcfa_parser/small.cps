(program (app (lam x k (app (ref k) (ref x) (ref x))) (lam y j (app (ref j) (ref y) (ref y))) (lam z na (app (ref z) (ref z) (ref z)))))
