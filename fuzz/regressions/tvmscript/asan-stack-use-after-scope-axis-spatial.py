@prim_func
def p(A:r[(17),]) ->on:
 
                 with T.block("C_o"):  _o = T.axis.spatial(8, a)
                 T.mx( fl)
n0