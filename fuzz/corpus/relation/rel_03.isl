{S[k,c,ox,oy,rx,ry]:0<=k<4 and 0<=c<3 and 0<=ox<6 and 0<=oy<6 and 0<=rx<3 and 0<=ry<3}
