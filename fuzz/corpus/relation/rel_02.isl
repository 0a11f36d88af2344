{S[k,c,ox,oy,rx,ry]->W[k,c,rx,ry]}
