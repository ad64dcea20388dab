(program
  (app (lam x k
      (app (lam f_1 k
          (app (ref f_1)
            (lam x k (app (ref k) (ref x) (ref x)))
            (lam na0 na1
              (app (ref f_1)
                (lam y k (app (ref k) (ref y) (ref y)))
                (ref k)))))
        (lam z_1 k
          (app (lam f_2 k
              (app (ref f_2)
                (lam x k (app (ref k) (ref x) (ref x)))
                (lam na0 na1
                  (app (ref f_2)
                    (lam y k (app (ref k) (ref y) (ref y)))
                    (ref k)))))
            (lam z_2 k
              (app (ref k)
                (lam w k
                  (app (ref w)
                    (ref z_2)
                    (lam w na
                      (app (ref w)
                        (ref z_1)
                        (lam v na (app (ref k) (ref v) (ref v)))))))
                (ref k)))
            (ref k)))
        (ref k)))
    (lam u k (app (ref u) (ref u) (ref k)))
    (lam na0 na1
      (app (lam u0 k (app (ref u0) (ref u0) (ref k)))
        (lam u1 k (app (ref u1) (ref u1) (ref k)))
        (lam u2 k (app (ref u2) (ref u2) (ref k)))))))
