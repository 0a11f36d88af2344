{S[k,c,ox,oy,rx,ry]->I[c,ox+rx,oy+ry]}
