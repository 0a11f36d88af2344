{S[k,c,ox,oy,rx,ry]->O[k,ox,oy]}
