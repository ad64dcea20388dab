; a comment
(program
  (app (ref f) (ref x)))
